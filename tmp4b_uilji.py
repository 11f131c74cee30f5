
import time
from engine.config import Config
from engine.hub import make_hub
if __name__ == "__main__":
    t0 = time.perf_counter()
    hub = make_hub(workers=1)
    key = hub.subscribe(Config().replace(n=200, n_test=100, d=40, D=20, m=4, T=3, batch=50), "w")
    while hub.status(key)["n"] == 0:
        time.sleep(0.005)
    print(time.perf_counter() - t0)
    hub.close()

"""Helper scripts (a package so that tests can `from scripts.serve import start_app`)."""

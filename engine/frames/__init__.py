"""Explore's frames, made in the engine: FrameStream (one run's frames, the frame contract),
the Frame record and its browser packing. Never imports streamlit or ui/."""

from .frame import Frame, pack
from .procedure import FRAMES
from .stream import MAKERS, FrameStream

__all__ = ["FRAMES", "MAKERS", "Frame", "FrameStream", "pack"]

"""Shi's gradient feature learning (Diss. ch. 3, Algorithm 1) and its worlds' data (spec §2)."""

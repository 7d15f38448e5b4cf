"""Memories, the pure part: the memory model, attention, sectors, disclosure, hits."""

"""Learning, the pure part: session digests (work memories), corrections and gotchas."""

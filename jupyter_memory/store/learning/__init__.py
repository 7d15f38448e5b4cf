"""Learning on disk: digests, learning candidates, kernel sessions, chat files."""

"""Memories on disk: memory files, the derived search index, embeddings, cold archive."""

"""Investigation case memory, the pure part: entry and INDEX.md formats, write policy."""

"""Investigation case memory, the policy: notes, archive, search, index checks."""

"""Memories, the policy: tiers and semantic recall."""

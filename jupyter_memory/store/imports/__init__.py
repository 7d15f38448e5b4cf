"""Disk access for imports from other tools and exports back to them (issue 18)."""

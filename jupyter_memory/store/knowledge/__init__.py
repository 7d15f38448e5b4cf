"""Knowledge on disk: knowledge files, the proposal queue, AGENTS.md, the person's text."""

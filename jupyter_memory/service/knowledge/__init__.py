"""Governed knowledge, the policy: knowledge files, the queue, agent tools, AGENTS.md."""

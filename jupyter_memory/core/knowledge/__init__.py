"""Governed knowledge, the pure part: the knowledge file format, proposals, evidence, context."""

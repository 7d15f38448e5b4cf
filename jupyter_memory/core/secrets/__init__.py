"""Secrets in the person's text: found and redacted before anything is stored (docs/storage.md).

Import :mod:`.detector` where text is captured or checked, not at package import:
it is not needed to start a kernel.
"""

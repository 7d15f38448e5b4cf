"""Pure parsers for what people bring from other tools (issue 18), one module per source.

Each parser turns one source file's text into drafts: memories to store and
knowledge proposals to queue. Nothing here reads a disk; ``store/imports``
reads the source folder and ``service/imports`` decides what is written.
"""

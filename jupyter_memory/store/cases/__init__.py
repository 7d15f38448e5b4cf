"""Case memory on disk: case folders, entries and INDEX.md."""

"""Import from the tools people use now, and export back (issue 18).

The policy: what becomes knowledge arrives as a proposal (source ``import``)
that a person applies; notes from a person's own tools are stored as
reviewed memories (``source: import``); duplicates are skipped, so a second
import adds nothing. :func:`.importer.import_from` is ``Memory.import_from``.
"""

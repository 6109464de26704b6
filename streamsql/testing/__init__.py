"""Testing tools shipped with the engine: the crash campaign (:mod:`.chaos`)."""

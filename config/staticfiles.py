"""How production stores the collected static files (settings.STORAGES["staticfiles"])."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFiles(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage: each file also under a name carrying a hash of its content (so it
    may be cached for ever), with a gzip copy. JavaScript files are copied as they are: the
    vendored libraries (static/vendor/) come without their source maps, which a browser asks
    for only with its developer tools open; CSS references are still rewritten to the hashed
    names."""

    patterns = tuple(
        (extension, ()) if extension == "*.js" else (extension, found)
        for extension, found in CompressedManifestStaticFilesStorage.patterns
    )

"""The one exception the exporter raises for problems the user can fix."""


class ExportError(Exception):
    """An export cannot produce a correct .pte; the message says what, where and how to fix.

    Attributes:
      method: the method the problem is in, if it is in one.
      buffer: the buffer (fully-qualified name) it concerns, if any.
    """

    def __init__(self, message: str, *, method: str | None = None, buffer: str | None = None):
        where = []
        if method is not None:
            where.append(f"method '{method}'")
        if buffer is not None:
            where.append(f"buffer '{buffer}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.method = method
        self.buffer = buffer

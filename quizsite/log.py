"""Log lines that say which request they are about."""

import logging


class RequestFormatter(logging.Formatter):
    """Adds the request's method and path to records that carry one (django.request's errors)."""

    def format(self, record: logging.LogRecord) -> str:
        request = getattr(record, "request", None)
        method = getattr(request, "method", None)
        record.request_line = f" [{method} {request.get_full_path()}]" if method else ""
        return super().format(record)

"""Dates as an English reader of a site used around the world reads them: "2 Dec 2026,
06:49", never Django's American "12/02/2026 6:49 a.m." (which a European reads as the 12th
of February). French keeps Django's own formats (02/12/2026 06:49)."""

DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y, H:i"
TIME_FORMAT = "H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"

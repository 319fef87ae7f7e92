"""The instructors' score reports: their reads aggregated in SQL, CSV exports, pages."""

"""Quizzes in and out: our quiz file, site bundles, Moodle's GIFT and Moodle XML, the import
plan, and the admin's import and export pages and commands."""

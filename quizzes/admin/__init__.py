"""The admin, one module by concern; importing them registers their admins."""

from quizzes.admin import guides, images, questions, quizzes, records

__all__ = ["guides", "images", "questions", "quizzes", "records"]

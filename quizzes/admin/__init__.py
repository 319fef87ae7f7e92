"""The admin, one module by concern; importing them registers their admins."""

from quizzes.admin import images, questions, quizzes, records

__all__ = ["images", "questions", "quizzes", "records"]

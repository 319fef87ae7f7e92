"""The admin, one module by concern; importing them registers their admins."""

from quizzes.admin import embeds, guides, images, questions, quizzes, records

__all__ = ["embeds", "guides", "images", "questions", "quizzes", "records"]

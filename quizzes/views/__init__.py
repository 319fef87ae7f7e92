"""The pages: learner.py and accounts.py for learners, reports.py for instructors."""

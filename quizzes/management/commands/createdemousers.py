import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

DEMO_USERS = {"editor": "Editors", "instructor": "Instructors"}


class Command(BaseCommand):
    help = (
        "Create (or reset) the staff accounts 'editor' and 'instructor' for trying the admin "
        "and the reports; prints their new passwords once."
    )

    def handle(self, *args, **options):
        User = get_user_model()
        for username, group_name in DEMO_USERS.items():
            password = secrets.token_urlsafe(12)
            user, created = User.objects.get_or_create(username=username)
            user.is_staff = True
            user.set_password(password)
            user.save()
            user.groups.set([Group.objects.get(name=group_name)])
            action = "created" if created else "reset"
            self.stdout.write(f"{username} ({group_name}, {action}): password {password}")
        self.stdout.write("The passwords are not stored anywhere else: note them now.")

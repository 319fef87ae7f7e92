from django.db import models


class RateLimitHit(models.Model):
    """One request counted against a limit: sign-ups from an address, sign-ins in flight.

    Rows in the database, so every worker and every web host counts the same requests.
    """

    key = models.CharField(max_length=100)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["key", "at"])]

    def __str__(self) -> str:
        return f"{self.key} at {self.at:%Y-%m-%d %H:%M:%S}"

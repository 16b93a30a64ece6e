"""One way to write dates and times across the pages, the transcripts and the admin:
ISO-like, 24-hour, in the site's time zone (TIME_ZONE). Templates use
``|date:"DATETIME_FORMAT"``; the admin reads these formats itself."""

DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "Y-m-d H:i"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
MONTH_DAY_FORMAT = "F j"
YEAR_MONTH_FORMAT = "F Y"
FIRST_DAY_OF_WEEK = 1  # Monday

"""Results: what the collected records say (layer 5; see tests/test_layers.py).

  tables/     stored records to tidy tables, export files and formats
  quality/    flags, exclusions and the participant funnel
  ratings/    statistics of rating studies, sample-size planning
  ranking/    preferences: pairwise, best-worst and ratings read as preferences
  judges/     automatic judges against the human raters
  live/       live chats analysed
  reports/    Markdown/HTML reports and charts
  dashboard/  what the refreshing dashboard shows, as plain data

May import foundations, `infact.study`, the stores and the run; never `ui`, `cli` or pages.
"""

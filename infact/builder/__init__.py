"""The in-app study builder's logic, without Streamlit: the form's fields generated from the settings models
(`fields`), and a study folder built in memory from an uploaded table and the form's values, checked, zipped
or saved (`folder`). pages/builder.py and infact/ui/builder/ draw it.

Sits in the results layer beside the importers (it reads uploaded tables with them): may import the study
layer, the stores and infact.importers; never `ui`, `cli` or pages.
"""

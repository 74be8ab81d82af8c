"""Admins: batch risk reports, trajectory record linkage, belief audits, jobs, users.

One sub-package per subject: ``kapr`` (the KAPR report and what workers saw together),
``utility`` (risk against utility, ground truth), ``belief`` (re-identification audits),
``trajectory`` (trajectory record-linkage risk as a job). The pages live in ``views/``, which
imports the services and is never imported by them; the app registers ``views.bp``.
"""

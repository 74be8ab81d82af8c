"""Workers: the linkage grid and its JSON endpoints.

``services`` is what the rest of the app calls (read a page, preview its costs, reveal a cell);
``serialize`` gives the worker API's JSON shapes. Under them: ``grid`` (the disclosure state of
displayed pairs, the sources' indexes), ``reveal`` (the one write that charges a budget),
``answers`` (workers' decisions), and ``connection`` (the hot requests' connection). The pages
live in ``views/``, which imports the services and is never imported by them.
"""

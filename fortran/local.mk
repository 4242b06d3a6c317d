# fortran: see fortran/README or the files below (to be filled by its owner).

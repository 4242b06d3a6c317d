# console: see console/README or the files below (to be filled by its owner).

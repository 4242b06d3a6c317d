# group: see group/README or the files below (to be filled by its owner).

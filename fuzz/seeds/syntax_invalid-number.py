tile = 064

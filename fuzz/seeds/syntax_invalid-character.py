cost$ = 3

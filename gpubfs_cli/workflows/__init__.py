"""Work that spans the layers: reproducing a paper (fetch, run, report) and building
auto.bfs's table from results files. Above report and bench, so neither needs the other's
callers, and below the CLI."""

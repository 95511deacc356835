"""Region-local asynchronous BFS (regions.bfs): gpubfs's own GPU family for graphs of
thousands of levels (road networks, meshes), paper key "beyond"."""

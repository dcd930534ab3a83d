import sys
sys.setrecursionlimit(200)
def down(n):
    return down(n + 1)
down(0)

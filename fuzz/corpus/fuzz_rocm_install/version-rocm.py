__version__ = '2.5.1+rocm6.2'
debug = False
cuda: Optional[str] = None
git_version = 'fixture'
hip: Optional[str] = '6.2.41133-dd7f95766'

__version__ = '2.5.1+cpu'
debug = False
cuda: Optional[str] = None
git_version = 'fixture'
hip: Optional[str] = None

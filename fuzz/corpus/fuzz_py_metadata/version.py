__version__ = '2.4.0+cu121'
debug = False
cuda: Optional[str] = '12.1'
git_version = 'fixture'
hip: Optional[str] = None

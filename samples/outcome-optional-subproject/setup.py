from setuptools import find_packages, setup

setup(name="pkg", packages=find_packages(include=["pkg"]), install_requires=["torch"])

# Homebrew formula for mpsaudit. UNTESTED: written to Homebrew's standard
# formula layout, but this project has no macOS machine to build it on (see
# docs/ci.md#homebrew-mac). Fill in url and sha256 for a release tarball, then
# run `brew install --build-from-source`, `brew test` and `brew audit --new`.
class Mpsaudit < Formula
  desc "Tells whether a PyTorch/CUDA repository can run on Apple Silicon through MPS"
  homepage "https://github.com/mpsaudit/mpsaudit"
  url "https://github.com/mpsaudit/mpsaudit/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "Apache-2.0"
  head "https://github.com/mpsaudit/mpsaudit.git", branch: "main"

  depends_on "cmake" => :build
  depends_on "ninja" => :build
  depends_on "nlohmann-json" => :build
  depends_on "tomlplusplus" => :build
  depends_on "pkgconf" => :build
  depends_on "tree-sitter"
  depends_on "yaml-cpp"
  depends_on "llvm" => :recommended # the C++/CUDA front end (Clang LibTooling)

  # The Python grammar, from the npm package scripts/setup also pins.
  resource "tree-sitter-python" do
    url "https://registry.npmjs.org/tree-sitter-python/-/tree-sitter-python-0.23.6.tgz"
    sha256 "aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a"
  end

  def install
    (buildpath/"third_party/tree-sitter-python").install resource("tree-sitter-python")
    args = %W[
      -DMPSAUDIT_WITH_PROBE=OFF
      -DMPSAUDIT_WITH_CLANG=#{build.with?("llvm") ? "ON" : "OFF"}
    ]
    system "cmake", "-S", ".", "-B", "build", "-G", "Ninja", *args, *std_cmake_args
    system "cmake", "--build", "build", "--target", "mpsaudit"
    system "cmake", "--install", "build"
  end

  test do
    (testpath/"train.py").write <<~PYTHON
      import torch
      model = torch.nn.Linear(2, 2).cuda()
    PYTHON
    output = shell_output("#{bin}/mpsaudit scan #{testpath} --no-git --format json", 1)
    assert_match "MPS201", output
    assert_path_exists share/"mpsaudit/rules/meta.toml"
  end
end

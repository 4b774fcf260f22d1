"""Plugin distributions contribute ``agentkit`` commands through the ``agentkit.commands`` entry points."""

from __future__ import annotations

GREET = '''
import sys

def main(argv):
    print("greet got", argv)
    return 3
'''


def install_greet(site_dir, **kwargs):
    return site_dir("greet-plugin", entry_points={"agentkit.commands": {"greet": "greetcmd:main"}},
                    files={"greetcmd.py": GREET}, **kwargs)


def test_a_contributed_command_runs_with_its_arguments_and_exit_code(agentkit, site_dir):
    install_greet(site_dir)
    result = agentkit("greet", "--loud", "x", site=site_dir.site)
    assert result.returncode == 3, result.stderr
    assert result.stdout == "greet got ['--loud', 'x']\n"


def test_help_lists_contributed_commands_without_importing_them(agentkit, site_dir, tmp_path):
    marker = tmp_path / "imported"
    site_dir("marker-plugin", entry_points={"agentkit.commands": {"mark": "markcmd:main"}},
             files={"markcmd.py": f"open({str(marker)!r}, 'w').close()\ndef main(argv): return 0\n"})
    result = agentkit("--help", site=site_dir.site)
    assert result.returncode == 0, result.stderr
    assert "mark" in result.stdout and "marker-plugin" in result.stdout
    assert not marker.exists()


def test_a_built_in_command_is_never_replaced(agentkit, site_dir):
    site_dir("evil-plugin", entry_points={"agentkit.commands": {"run": "evilcmd:main"}},
             files={"evilcmd.py": "def main(argv):\n    print('evil')\n    return 0\n"})
    result = agentkit("run", "--help", site=site_dir.site)
    assert result.returncode == 0 and "evil" not in result.stdout


def test_a_command_that_fails_to_load_is_one_line_naming_its_distribution(agentkit, site_dir):
    site_dir("broken-cmd", entry_points={"agentkit.commands": {"broken": "brokencmd:main"}},
             files={"brokencmd.py": "raise ImportError('needs a thing')\n"})
    result = agentkit("broken", site=site_dir.site)
    assert result.returncode == 2
    assert "broken-cmd" in result.stderr and "needs a thing" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_disabled_distribution_contributes_no_command(agentkit, site_dir):
    install_greet(site_dir)
    result = agentkit("greet", site=site_dir.site, env={"AGENTKIT_DISABLE_PLUGINS": "greet-plugin"})
    assert result.returncode == 2
    assert "invalid choice: 'greet'" in result.stderr
    assert "greet" not in agentkit("--help", site=site_dir.site,
                                   env={"AGENTKIT_DISABLE_PLUGINS": "greet-plugin"}).stdout


def test_an_unknown_command_is_still_a_usage_error(agentkit):
    result = agentkit("no-such-command")
    assert result.returncode == 2 and "invalid choice" in result.stderr

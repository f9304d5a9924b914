#!/usr/bin/env python3
"""Prints the test time of each module and the slowest test classes, from the surefire reports.

Usage: .ci/test-times.py [N]   (N slowest classes, 25 by default). Run from the repository root
after a build; docs/building.md publishes its output.
"""
import glob
import re
import sys

TESTSUITE = re.compile(r'<testsuite\b[^>]*>')


def attribute(tag, name):
    found = re.search(r'\b' + name + r'="([^"]*)"', tag)
    return found.group(1) if found else ''


def main():
    most = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    classes = []
    for report in glob.glob('*/target/surefire-reports/TEST-*.xml'):
        with open(report, encoding='utf-8') as file:
            tag = TESTSUITE.search(file.read(8192))
        if tag:
            module = report.split('/')[0]
            classes.append((float(attribute(tag.group(0), 'time') or 0), int(attribute(tag.group(0), 'tests') or 0),
                            module, attribute(tag.group(0), 'name').rsplit('.', 1)[-1]))
    modules = {}
    for seconds, tests, module, _ in classes:
        total = modules.setdefault(module, [0.0, 0, 0])
        total[0] += seconds
        total[1] += tests
        total[2] += 1
    print('| module | test classes | tests | summed class time |')
    print('| --- | ---: | ---: | ---: |')
    for module, (seconds, tests, count) in sorted(modules.items(), key=lambda item: -item[1][0]):
        print(f'| {module} | {count} | {tests} | {seconds:.0f} s |')
    print()
    print('| test class | module | tests | time |')
    print('| --- | --- | ---: | ---: |')
    for seconds, tests, module, name in sorted(classes, reverse=True)[:most]:
        print(f'| {name} | {module} | {tests} | {seconds:.1f} s |')


if __name__ == '__main__':
    main()

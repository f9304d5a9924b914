package dev.zklock.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.zklock.docs.MarkdownPages.CodeBlock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java block in README.md and docs/*.md is code that compiles: its lines appear,
 * in order and together, in one source file of this package, which test-compile
 * builds. A line {@code // ...} (possibly followed by a note) in a block stands for
 * lines the page leaves out.
 * Indentation and blank lines do not count.
 */
class DocsCodeBlocksTests {

	private static final String ELISION = "// ...";

	private static final Path SNIPPETS = Path.of("src/test/java/dev/zklock/docs");

	@Test
	void everyJavaBlockIsPartOfACompiledSnippet() throws IOException {
		MarkdownPages docs = MarkdownPages.ofRepository();
		List<List<String>> sources = new ArrayList<>();
		try (Stream<Path> files = Files.list(SNIPPETS)) {
			files.filter((file) -> file.toString().endsWith(".java"))
				.forEach((file) -> sources.add(normalize(MarkdownPages.lines(file))));
		}
		List<String> javaBlocks = new ArrayList<>();
		List<String> unmatched = new ArrayList<>();
		for (Path page : docs.pages()) {
			for (CodeBlock block : MarkdownPages.codeBlocks(page)) {
				if (block.language().equals("java")) {
					javaBlocks.add(block.where());
					List<String> lines = normalize(block.lines());
					if (sources.stream().noneMatch((source) -> contains(source, lines))) {
						unmatched.add(block.where());
					}
				}
			}
		}
		assertThat(javaBlocks).as("Java blocks in the docs").hasSizeGreaterThanOrEqualTo(10);
		assertThat(unmatched).as("Java blocks found in no file of " + SNIPPETS).isEmpty();
	}

	@Test
	void aBlockMatchesOnlyTheLinesItShows() {
		List<String> source = List.of("class A {", "void a() {", "int x = 1;", "int y = 2;", "}", "}");
		assertThat(contains(source, List.of("int x = 1;", "int y = 2;"))).isTrue();
		assertThat(contains(source, List.of("int y = 2;", "int x = 1;"))).isFalse();
		assertThat(contains(source, List.of("class A {", "int x = 1;"))).isFalse();
		assertThat(contains(source, List.of("class A {", ELISION, "int y = 2;", "}"))).isTrue();
		assertThat(contains(source, List.of("class A {", ELISION + " (a note)", "}", "}"))).isTrue();
		assertThat(contains(source, List.of("int x = 2;"))).isFalse();
	}

	private static List<String> normalize(List<String> lines) {
		return lines.stream().map(String::strip).filter((line) -> !line.isEmpty()).toList();
	}

	// true when the block's segments between elisions occur in the source in order, each one contiguous
	static boolean contains(List<String> source, List<String> block) {
		List<List<String>> segments = new ArrayList<>();
		List<String> segment = new ArrayList<>();
		for (String line : block) {
			if (line.equals(ELISION) || line.startsWith(ELISION + " ")) {
				segments.add(segment);
				segment = new ArrayList<>();
			}
			else {
				segment.add(line);
			}
		}
		segments.add(segment);
		return matches(source, 0, segments, 0);
	}

	// each segment follows an elision (or opens the block), so it may start anywhere after the previous one
	private static boolean matches(List<String> source, int from, List<List<String>> segments, int index) {
		if (index == segments.size()) {
			return true;
		}
		List<String> segment = segments.get(index);
		for (int start = from; start <= source.size() - segment.size(); start++) {
			if (source.subList(start, start + segment.size()).equals(segment)
					&& matches(source, start + segment.size(), segments, index + 1)) {
				return true;
			}
		}
		return false;
	}

}

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
 * Every Java and Kotlin block in README.md and docs/*.md is code that compiles: its
 * lines appear, in order and together, in one source file of this package (Java
 * under src/test/java, Kotlin under src/test/kotlin, and the plain-Java example under
 * zk-lock-core's src/test/java), which test-compile builds. A line {@code // ...} (possibly followed by a note) in a block stands for
 * lines the page leaves out.
 * Indentation and blank lines do not count.
 */
class DocsCodeBlocksTests {

	private static final String ELISION = "// ...";

	private static final Path JAVA_SNIPPETS = Path.of("src/test/java/dev/zklock/docs");

	private static final Path CORE_SNIPPETS = Path.of("../zk-lock-core/src/test/java/dev/zklock/docs");

	private static final Path KOTLIN_SNIPPETS = Path.of("src/test/kotlin/dev/zklock/docs");

	@Test
	void everyJavaBlockIsPartOfACompiledSnippet() throws IOException {
		assertThat(unmatchedBlocks("java", List.of(JAVA_SNIPPETS, CORE_SNIPPETS), ".java", 10))
			.as("Java blocks found in no file of " + JAVA_SNIPPETS + " or " + CORE_SNIPPETS)
			.isEmpty();
	}

	@Test
	void everyKotlinBlockIsPartOfACompiledSnippet() throws IOException {
		assertThat(unmatchedBlocks("kotlin", List.of(KOTLIN_SNIPPETS), ".kt", 5)).as("Kotlin blocks found in no file of "
				+ KOTLIN_SNIPPETS).isEmpty();
	}

	// the blocks of the language whose lines are in no source file of the directory
	private static List<String> unmatchedBlocks(String language, List<Path> directories, String extension,
			int atLeast) throws IOException {
		MarkdownPages docs = MarkdownPages.ofRepository();
		List<List<String>> sources = new ArrayList<>();
		for (Path snippets : directories) {
			try (Stream<Path> files = Files.list(snippets)) {
				files.filter((file) -> file.toString().endsWith(extension))
					.forEach((file) -> sources.add(normalize(MarkdownPages.lines(file))));
			}
		}
		List<String> blocks = new ArrayList<>();
		List<String> unmatched = new ArrayList<>();
		for (Path page : docs.pages()) {
			for (CodeBlock block : MarkdownPages.codeBlocks(page)) {
				if (block.language().equals(language)) {
					blocks.add(block.where());
					List<String> lines = normalize(block.lines());
					if (sources.stream().noneMatch((source) -> contains(source, lines))) {
						unmatched.add(block.where());
					}
				}
			}
		}
		assertThat(blocks).as(language + " blocks in the docs").hasSizeGreaterThanOrEqualTo(atLeast);
		return unmatched;
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

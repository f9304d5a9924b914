package dev.zklock.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.zklock.docs.MarkdownPages.Link;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link in README.md and docs/*.md reaches a file of the repository, and
 * every {@code #anchor} a heading of the page it names.
 */
class DocsLinksTests {

	// pages another change adds; a link to them may point nowhere until they arrive, and is checked once they do
	private static final Set<String> PAGES_ON_THE_WAY = Set.of();

	@Test
	void relativeLinksAndAnchorsResolve() {
		MarkdownPages docs = MarkdownPages.ofRepository();
		List<String> checked = new ArrayList<>();
		List<String> broken = new ArrayList<>();
		for (Path page : docs.pages()) {
			for (Link link : MarkdownPages.links(page)) {
				String target = link.target();
				if (target.matches("^[a-z]+:.*")) {
					continue;
				}
				checked.add(link.where());
				int hash = target.indexOf('#');
				String file = (hash < 0) ? target : target.substring(0, hash);
				Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
				if (!resolved.startsWith(docs.root())) {
					broken.add(link.where() + ": outside the repository");
					continue;
				}
				if (!Files.exists(resolved)) {
					if (!PAGES_ON_THE_WAY.contains(docs.name(resolved)) || hash >= 0) {
						broken.add(link.where() + ": no such file");
					}
					continue;
				}
				if (hash >= 0) {
					String anchor = target.substring(hash + 1);
					if (!resolved.toString().endsWith(".md") || !MarkdownPages.anchors(resolved).contains(anchor)) {
						broken.add(link.where() + ": no heading with anchor #" + anchor);
					}
				}
			}
		}
		assertThat(checked).as("relative links in the docs").hasSizeGreaterThanOrEqualTo(20);
		assertThat(broken).isEmpty();
	}

	@Test
	void anchorsAreTheOnesGitHubGivesHeadings() {
		assertThat(MarkdownPages.slug("Locking a method: `@DistributedLock`")).isEqualTo("locking-a-method-distributedlock");
		assertThat(MarkdownPages.slug("What `./mvnw verify` proves about the sample"))
			.isEqualTo("what-mvnw-verify-proves-about-the-sample");
		assertThat(MarkdownPages.slug("Who holds a lock?")).isEqualTo("who-holds-a-lock");
	}

}

import java.io.PrintWriter;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * One run of a test class or method through the JUnit Platform launcher, for
 * {@code .ci/repeat-test}, which starts a fresh JVM for each run. Prints the failures
 * and the counts. Exit status 0 when every test passed, 1 when one failed, 2 when none
 * passed (a wrong selector, or tests that all aborted), so that a run that tested
 * nothing never counts as a pass.
 */
public final class RepeatTest {

	private RepeatTest() {
	}

	public static void main(String[] args) {
		if (args.length != 1) {
			System.err.println("usage: RepeatTest <class or class#method>");
			System.exit(2);
		}
		String selector = args[0];
		DiscoverySelector selected = selector.contains("#") ? DiscoverySelectors.selectMethod(selector)
				: DiscoverySelectors.selectClass(selector);
		LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selected).build();
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		LauncherFactory.create().execute(request, listener);
		TestExecutionSummary summary = listener.getSummary();
		PrintWriter out = new PrintWriter(System.out, true);
		summary.printFailuresTo(out, 60);
		out.printf("%s: %d found, %d passed, %d failed, %d aborted, %d skipped%n", selector,
				summary.getTestsFoundCount(), summary.getTestsSucceededCount(), summary.getTotalFailureCount(),
				summary.getTestsAbortedCount(), summary.getTestsSkippedCount());
		if (summary.getTotalFailureCount() > 0) {
			System.exit(1);
		}
		System.exit((summary.getTestsSucceededCount() > 0) ? 0 : 2);
	}

}

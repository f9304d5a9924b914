package dev.zklock.sample;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enables {@link BrowserTest @BrowserTest} tests when Chromium and its driver are
 * installed; otherwise skips them, or fails them in CI.
 */
final class BrowserTestCondition implements ExecutionCondition {

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		String missing = HeadlessChromium.missing();
		if (missing == null) {
			return ConditionEvaluationResult.enabled("Chromium and chromedriver are installed");
		}
		if ("true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new IllegalStateException("Browser tests must run in CI (CI=true) but " + missing
					+ ". Install Debian's packages: apt-get install -y chromium chromium-driver (.ci/run does)");
		}
		return ConditionEvaluationResult.disabled(missing + "; apt-get install -y chromium chromium-driver to run "
				+ "browser tests (in CI, with CI=true, they fail instead)");
	}

}

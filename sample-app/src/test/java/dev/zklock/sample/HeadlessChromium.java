package dev.zklock.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Starts Debian's Chromium, headless, through Debian's chromedriver. Both paths are
 * given explicitly, so Selenium Manager never runs and nothing is downloaded; every
 * request to an address other than the loopback goes to a dead proxy.
 */
final class HeadlessChromium {

	/**
	 * The browser of Debian's {@code chromium} package.
	 */
	static final String CHROMIUM = "/usr/bin/chromium";

	/**
	 * The driver of Debian's {@code chromium-driver} package.
	 */
	static final String CHROMEDRIVER = "/usr/bin/chromedriver";

	private HeadlessChromium() {
	}

	/**
	 * What is missing to run the browser.
	 * @return a description, or {@code null} when both executables are installed
	 */
	static String missing() {
		for (String executable : new String[] { CHROMIUM, CHROMEDRIVER }) {
			if (!Files.isExecutable(Path.of(executable))) {
				return executable + " is not installed";
			}
		}
		return null;
	}

	/**
	 * Start a browser.
	 * @return the driver; quit it when done
	 */
	static ChromeDriver start() {
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM);
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-background-networking", "--disable-component-update", "--disable-default-apps",
				"--disable-extensions", "--disable-sync", "--disable-breakpad", "--disable-domain-reliability",
				"--disable-client-side-phishing-detection", "--no-first-run", "--no-default-browser-check",
				"--no-pings", "--proxy-server=127.0.0.1:9", "--window-size=1280,1000");
		ChromeDriverService service = new ChromeDriverService.Builder()
			.usingDriverExecutable(new File(CHROMEDRIVER))
			.usingAnyFreePort()
			.build();
		return new ChromeDriver(service, options);
	}

}

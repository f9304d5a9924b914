package dev.zklock.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test that drives Debian's headless Chromium ({@value HeadlessChromium#CHROMIUM}
 * and {@value HeadlessChromium#CHROMEDRIVER}, packages {@code chromium} and
 * {@code chromium-driver}). Without them the test is skipped, except in CI
 * (environment variable {@code CI=true}), where it fails.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("browser")
@ExtendWith(BrowserTestCondition.class)
@interface BrowserTest {

}

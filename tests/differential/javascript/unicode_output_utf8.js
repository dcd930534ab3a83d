console.log('English, Français, Deutsch, Ελληνικά, Русский, 日本語, 한국어, العربية, עברית');
console.log('emoji: 😀 🎉 👍🏽 🇫🇷 👨‍👩‍👧');
console.log('math: ∑ ∫ √ ∞ ≠ ≤ ≥ π');
